import { fromRow } from '../../core/graphql-sql/sql-fields';
import { Arg, Ctx, Mutation, Query, Resolver, UseMiddleware } from 'type-graphql';
import { AuthQuota } from '../../core/rate-limit';
import type { AppContext } from '../../core/context';
import { Public, Rest } from '../../core/graphql-decorators';
import { ForgotPasswordInput, LoginInput, ResendVerificationInput, ResetPasswordInput, SignupInput, VerifyEmailInput } from './accounts.inputs';
import {
  AccessTokenResponse,
  ForgotPasswordResponse,
  ResendVerificationResponse,
  SignupUserResponse,
  UserResponse,
  VerifyEmailResponse,
} from './accounts.types';
import { forgotPassword, login, resetPassword } from './auth.service';
import { resendVerification, verifyEmail } from './email-verification.service';
import { signup } from './signup.service';
import { currentUser } from './user.service';

@Resolver()
export class AccountResolver {
  @Mutation(() => SignupUserResponse, {
    description: 'Create an account, its personal organization, default workspace and project. Optional header X-Captcha-Token.',
  })
  @Public()
  @UseMiddleware(AuthQuota)
  @Rest('POST', '/auth/signup', { status: 201, tags: ['accounts'] })
  signup(@Arg('input', () => SignupInput, { description: "The new account's details." }) input: SignupInput, @Ctx() ctx: AppContext): Promise<SignupUserResponse> {
    return signup(input, ctx.headers.get('x-captcha-token'));
  }

  @Mutation(() => AccessTokenResponse, { description: 'Log in with an e-mail address or username and a password.' })
  @Public()
  @UseMiddleware(AuthQuota)
  @Rest('POST', '/auth/login', { tags: ['accounts'] })
  login(@Arg('input', () => LoginInput, { description: 'The credentials.' }) input: LoginInput): Promise<AccessTokenResponse> {
    return login(input);
  }

  @Mutation(() => ForgotPasswordResponse, {
    description: 'Mail a single-use password reset link (valid one hour). Same reply whether or not the address exists.',
  })
  @Public()
  @UseMiddleware(AuthQuota)
  @Rest('POST', '/auth/forgot-password', { status: 202, tags: ['accounts'] })
  forgot_password(@Arg('input', () => ForgotPasswordInput, { description: "The account's e-mail address." }) input: ForgotPasswordInput): Promise<ForgotPasswordResponse> {
    return forgotPassword(input);
  }

  @Mutation(() => AccessTokenResponse, {
    description: 'Set a new password with a reset token; every older access token stops working.',
  })
  @Public()
  @UseMiddleware(AuthQuota)
  @Rest('POST', '/auth/reset-password', { tags: ['accounts'] })
  reset_password(@Arg('input', () => ResetPasswordInput, { description: 'The reset token, the e-mail address and the new password.' }) input: ResetPasswordInput): Promise<AccessTokenResponse> {
    return resetPassword(input);
  }

  @Mutation(() => VerifyEmailResponse, {
    description: 'Verify the e-mail address with the single-use token mailed at signup (valid 24 hours).',
  })
  @Public()
  @UseMiddleware(AuthQuota)
  @Rest('POST', '/auth/verify-email', { tags: ['accounts'] })
  verify_email(@Arg('input', () => VerifyEmailInput, { description: 'The verification token.' }) input: VerifyEmailInput): Promise<VerifyEmailResponse> {
    return verifyEmail(input);
  }

  @Mutation(() => ResendVerificationResponse, {
    description: 'Mail a new verification link to an unverified account. Same reply whether or not the address has one.',
  })
  @Public()
  @UseMiddleware(AuthQuota)
  @Rest('POST', '/auth/resend-verification', { status: 202, tags: ['accounts'] })
  resend_verification(@Arg('input', () => ResendVerificationInput, { description: "The account's e-mail address." }) input: ResendVerificationInput): Promise<ResendVerificationResponse> {
    return resendVerification(input);
  }

  @Query(() => UserResponse, { description: 'The authenticated user.' })
  @Rest('GET', '/user', { tags: ['accounts'] })
  user(@Ctx() ctx: AppContext): UserResponse {
    return fromRow(UserResponse, currentUser(ctx));
  }
}
